"""The code the seed documents show, shared by the tests that run it on minitorch.

The statements are the seeds' own, with ``import torch`` replaced by
``import minitorch as torch`` (their explanatory comments are left out).
Seed 004's ``Linear.forward`` keeps the seed's typo ``self,bias``, which
raises NameError on PyTorch too.
"""

import minitorch as torch
from minitorch.autograd import Function


class Exp(Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MulConstantNoMaterialize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.set_materialize_grads(False)
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output is None:
            return None, None
        return grad_output * ctx.constant, None


class Linear(torch.nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super(Linear, self).__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = torch.nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter('bias', None)
        torch.nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            torch.nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self,bias)  # noqa: E231,F821 (the seed's typo)

    def extra_repr(self):
        return f'input_features={self.input_features}, output_features={self.output_features}, bias={self.bias is not None}'
